from django.contrib import admin
from django.urls import include, path

from codewithpapers import views
from papers.api.docs import docs as api_docs
from papers.mcp.http import mcp_endpoint
from papers.views import accounts

urlpatterns = [
    path("admin/login/", views.admin_login),  # throttled: codewithpapers.views.admin_login
    path("admin/", admin.site.urls),
    path("healthz", views.healthz, name="healthz"),
    path("robots.txt", views.robots_txt, name="robots-txt"),
    path("accounts/profile/", accounts.profile, name="accounts-profile"),
    path("accounts/tokens/<int:pk>/revoke", accounts.revoke_token, name="accounts-token-revoke"),
    path("accounts/", include("allauth.urls")),
    path("api/v1/", include("papers.api.urls")),
    path("api/docs", api_docs, name="api-docs"),
    path("mcp", mcp_endpoint, name="mcp"),
    path("", include("papers.urls")),
]

# Errors answer in the site's look, or as JSON under /api/; a database that cannot be
# reached is a 503, not a 500.
handler400 = "codewithpapers.views.bad_request"
handler404 = "codewithpapers.views.page_not_found"
handler500 = "codewithpapers.views.server_error"
