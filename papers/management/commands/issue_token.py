"""manage.py issue_token <username> [--level contributor|trusted|staff] [--name …]"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from papers.contributions.tokens import issue
from papers.models import Level


class Command(BaseCommand):
    help = (
        "Issue an API token to a user and print its key, once: only its hash is kept. "
        "Contributors' writes become proposals; trusted contributors' go live (they cannot "
        "delete archive records); staff tokens (staff users only) may do everything."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--level", choices=Level.values, default=Level.CONTRIBUTOR)
        parser.add_argument("--name", default="", help="What the token is for.")

    def handle(self, *args, username, level, name, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r} (manage.py createsuperuser makes one)")
        try:
            token, key = issue(user, level, name)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"Token {token.pk} ({level}) for {username}; its key, shown once:")
        self.stdout.write(key)
