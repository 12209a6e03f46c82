from django.db import models
from django.utils import timezone


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

    class Meta:
        abstract = True

    def mark_edited(self) -> None:
        now = timezone.now()
        self.edited_in_admin = True
        self.edited_at = now
        self.updated_at = now


class SlugManager(models.Manager):
    def get_by_natural_key(self, slug):
        return self.get(slug=slug)
