from django.apps import AppConfig


class PapersConfig(AppConfig):
    name = "papers"
    verbose_name = "Papers and code"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from papers import rankings  # noqa: F401  (connects its signal handlers)
