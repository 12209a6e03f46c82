from django.conf import settings


def site(request):
    """The archive notices every page's footer carries."""
    return {"ARCHIVE_ABOUT": settings.ARCHIVE_ABOUT, "ARCHIVE_SNAPSHOT": settings.ARCHIVE_SNAPSHOT}
