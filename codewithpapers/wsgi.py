import os

from django.core.wsgi import get_wsgi_application

from codewithpapers.backends import bound_requests
from codewithpapers.startup import load_site

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codewithpapers.settings")
application = get_wsgi_application()

# The site's requests are bounded (statement timeout); commands and scripts are not.
bound_requests()

load_site()
