from django.contrib import admin
from django.urls import include, path

from codewithpapers import views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", views.healthz, name="healthz"),
    path("robots.txt", views.robots_txt, name="robots-txt"),
    path("api/v1/", include("papers.api.urls")),
    path("", include("papers.urls")),
]

# A database that cannot be reached answers 503 in the site's look, not a 500.
handler500 = "codewithpapers.views.server_error"
