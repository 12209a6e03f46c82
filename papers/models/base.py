from django.conf import settings
from django.db import models
from django.utils import timezone

ARCHIVE_SNAPSHOT = "2025-07-28"


class Record(models.Model):
    """Bookkeeping shared by every record an import writes and staff can edit.

    `edited_in_admin` is set when staff save the record in the admin; a later
    `import_archive` leaves such records alone unless told `--overwrite-edits`.
    `created_at`/`updated_at` are set explicitly (not auto_now) so bulk imports,
    which bypass save(), keep them right.
    """

    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now, editable=False)
    edited_in_admin = models.BooleanField(
        default=False,
        help_text="Set when staff edit this record; imports leave it alone unless "
        "run with --overwrite-edits. Untick to let imports update it again.",
    )
    edited_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Who wrote it through the API (or had a proposal approved), and when: shown on the
    # pages as "contributed by <user>, <date>". No constraint of its own (bulk imports
    # drop and restore the archive's foreign keys; this column is null for all of it);
    # deleting a user leaves the record, without its contributor.
    contributed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,
        db_constraint=False,
        editable=False,
    )
    contributed_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        abstract = True

    @property
    def source(self) -> str:
        """Where the record's values come from: "contributed" (through the API),
        "edited" (by staff in the admin) or "archive" (the snapshot, as imported)."""
        if self.contributed_by_id is not None or self.contributed_at is not None:
            return "contributed"
        if self.edited_in_admin:
            return "edited"
        return "archive"

    def mark_contributed(self, user) -> None:
        """Written through the API by `user`: imports leave it alone from now on."""
        now = timezone.now()
        self.contributed_by = user
        self.contributed_at = now
        self.edited_in_admin = True
        self.updated_at = now

    def mark_edited(self) -> None:
        now = timezone.now()
        self.edited_in_admin = True
        self.edited_at = now
        self.updated_at = now


class SlugManager(models.Manager):
    def get_by_natural_key(self, slug):
        return self.get(slug=slug)
