"""Accounts: sign up by email, verify it from the outbox, sign in, and the profile page
(level, API tokens made once and revoked, contributions, claims)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from papers.contributions import tokens
from papers.contributions.site import site_level
from papers.models import ApiToken, Level, Member, Proposal

pytestmark = pytest.mark.django_db

PASSWORD = "a long enough passphrase 42"


def _link(message) -> str:
    return re.search(r"https?://[^\s]+", message.body).group(0)


def sign_up(client, email="ada@example.org", username="ada"):
    response = client.post(
        reverse("account_signup"),
        {"email": email, "username": username, "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return get_user_model().objects.get(email=email)


def verified_user(email="ada@example.org", days_old=30, **extra):
    from allauth.account.models import EmailAddress

    user = get_user_model().objects.create_user(
        username=email.split("@")[0], email=email, password=PASSWORD, **extra
    )
    user.date_joined = timezone.now() - dt.timedelta(days=days_old)
    user.save(update_fields=["date_joined"])
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


def test_sign_up_sends_a_verification_email_and_its_link_signs_in(client):
    user = sign_up(client)
    assert len(mail.outbox) == 1
    assert user.email in mail.outbox[0].to
    # Not signed in before the address is verified.
    assert client.get(reverse("accounts-profile")).status_code == 302
    link = _link(mail.outbox[0])
    path = link.split("://", 1)[1].split("/", 1)[1]
    response = client.post("/" + path)
    assert response.status_code == 302
    page = client.get(reverse("accounts-profile"))
    assert page.status_code == 200
    assert user.email in page.content.decode()


def test_a_new_account_writes_proposals_whatever_its_level(db):
    user = verified_user(days_old=0)
    Member.objects.create(user=user, level=Level.TRUSTED)
    assert site_level(user) == Level.CONTRIBUTOR
    user.date_joined = timezone.now() - dt.timedelta(days=30)
    user.save()
    assert site_level(user) == Level.TRUSTED


def test_an_unverified_address_writes_proposals(db):
    user = get_user_model().objects.create_user(username="u", email="u@example.org")
    user.date_joined = timezone.now() - dt.timedelta(days=30)
    user.save()
    Member.objects.create(user=user, level=Level.TRUSTED)
    assert site_level(user) == Level.CONTRIBUTOR


def test_staff_write_as_staff(db):
    user = verified_user(is_staff=True, days_old=0)
    assert site_level(user) == Level.STAFF


def test_the_profile_makes_a_token_shown_once_that_authenticates(client):
    user = verified_user()
    client.force_login(user)
    response = client.post(reverse("accounts-profile"), {"name": "my laptop"})
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    key = re.search(r'id="new-key"[^>]*value="([^"]+)"', response.content.decode()).group(1)
    token = ApiToken.objects.get(user=user)
    assert token.name == "my laptop" and token.level == Level.CONTRIBUTOR
    assert tokens.authenticate(f"Token {key}") == token
    again = client.get(reverse("accounts-profile")).content.decode()
    assert key not in again and token.prefix in again


def test_a_token_is_revoked_from_the_profile_and_no_one_else_can(client):
    owner, other = verified_user(), verified_user("bob@example.org")
    token, key = tokens.issue(owner, name="ci")
    client.force_login(other)
    assert client.post(reverse("accounts-token-revoke", args=[token.pk])).status_code == 404
    client.force_login(owner)
    assert client.post(reverse("accounts-token-revoke", args=[token.pk])).status_code == 302
    assert tokens.authenticate(f"Token {key}") is None
    assert client.get(reverse("accounts-token-revoke", args=[token.pk])).status_code == 405


def test_a_token_needs_a_name(client):
    client.force_login(verified_user())
    response = client.post(reverse("accounts-profile"), {"name": ""})
    assert 'class="field-error"' in response.content.decode()
    assert not ApiToken.objects.exists()


def test_the_profile_lists_proposals_with_their_status_and_reason(client):
    user = verified_user()
    Proposal.objects.create(
        user=user, operation="code_link_add", target={"paper": "x"}, status="rejected",
        reason="not the paper's code",
    )  # fmt: skip
    client.force_login(user)
    page = client.get(reverse("accounts-profile")).content.decode()
    assert "rejected" in page and "not the paper&#x27;s code" in page


def test_the_profile_reads_a_constant_number_of_queries(client, django_assert_max_num_queries):
    user = verified_user()
    client.force_login(user)
    for n in range(3):
        tokens.issue(user, name=f"t{n}")
        Proposal.objects.create(user=user, operation="code_link_add", target={"paper": f"p{n}"})
    client.get(reverse("accounts-profile"))
    with django_assert_max_num_queries(14) as first:
        client.get(reverse("accounts-profile"))
    for n in range(10):
        tokens.issue(user, name=f"more{n}")
        Proposal.objects.create(user=user, operation="code_link_add", target={"paper": f"q{n}"})
    with django_assert_max_num_queries(len(first.captured_queries)):
        client.get(reverse("accounts-profile"))


def test_signed_out_visitors_are_sent_to_sign_in(client):
    response = client.get(reverse("accounts-profile"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_account_pages_are_in_the_site_look_and_never_cached(client):
    page = client.get(reverse("account_login"))
    body = page.content.decode()
    assert page.status_code == 200
    assert 'class="site-header"' in body and "Sign in" in body
    assert 'name="csrfmiddlewaretoken"' in body


def test_signing_in_before_verifying_the_address_sends_the_link_again(client):
    sign_up(client)
    client.logout()
    response = client.post(
        reverse("account_login"), {"login": "ada@example.org", "password": PASSWORD}
    )
    assert response.status_code == 302
    assert "confirm-email" in response["Location"]
    assert client.get(reverse("accounts-profile")).status_code == 302


def test_a_forgotten_password_is_reset_from_the_emailed_link(client):
    verified_user()
    client.post(reverse("account_reset_password"), {"email": "ada@example.org"})
    assert len(mail.outbox) == 1
    link = _link(mail.outbox[0])
    path = "/" + link.split("://", 1)[1].split("/", 1)[1]
    form = client.get(path, follow=True)
    assert form.status_code == 200
    new = "another long passphrase 7"
    done = client.post(form.redirect_chain[-1][0], {"password1": new, "password2": new})
    assert done.status_code == 302
    assert client.login(username="ada", password=new)


def test_sign_ups_are_limited_per_address(client, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.ACCOUNT_RATE_LIMITS = {"signup": "2/h/ip"}
    for n in range(2):
        sign_up(client, email=f"u{n}@example.org", username=f"u{n}")
        client.logout()
    response = client.post(
        reverse("account_signup"),
        {"email": "u9@example.org", "username": "u9", "password1": PASSWORD,
         "password2": PASSWORD},
    )  # fmt: skip
    assert response.status_code == 429
    assert not get_user_model().objects.filter(email="u9@example.org").exists()


def test_oauth_providers_are_off_unless_configured(client):
    page = client.get(reverse("account_login")).content.decode()
    assert "github" not in page.lower() and "orcid" not in page.lower()


def test_oauth_providers_are_switched_on_by_their_settings():
    import subprocess
    import sys

    env = {
        "PATH": "/usr/bin:/bin",
        "SECRET_KEY": "x" * 50,
        "DOTENV": "",
        "GITHUB_CLIENT_ID": "abc",
        "GITHUB_SECRET": "s",
    }
    code = (
        "from codewithpapers import settings as s;"
        "print('allauth.socialaccount.providers.github' in s.INSTALLED_APPS,"
        " 'allauth.socialaccount.providers.orcid' in s.INSTALLED_APPS,"
        " s.SOCIALACCOUNT_PROVIDERS['github']['APPS'][0]['client_id'])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True", "False", "abc"]


def test_making_tokens_counts_against_the_hourly_write_allowance(client, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.SITE_WRITES_PER_HOUR = 2
    client.force_login(verified_user())
    for n in range(3):
        page = client.post(reverse("accounts-profile"), {"name": f"t{n}"}).content.decode()
    assert ApiToken.objects.count() == 2
    assert "Too many writes this hour" in page
