from django.apps import AppConfig


class PapersConfig(AppConfig):
    name = "papers"
    verbose_name = "Papers and code"
    default_auto_field = "django.db.models.BigAutoField"
