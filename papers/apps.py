from django.apps import AppConfig


class PapersConfig(AppConfig):
    name = "papers"
    verbose_name = "Papers and code"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # An ORM write to a board forgets what was kept of it (papers.kept.signals).
        from papers.kept import signals

        signals.connect()
