"""The execution report's vocabularies, with the labels and explanations the site shows.

The archive keeps growing its vocabularies (new statuses appear), so model fields
holding these values are plain CharFields: any value the archive sends is stored
verbatim and shown with `label_for()`, which falls back to the raw value.
"""

from django.db import models


class SampleStatus(models.TextChoices):
    RAN = "ran", "Ran"
    RAN_HONOURS = "ran_honours", "Ran, honours its contract"
    RAN_VIOLATES = "ran_violates", "Ran, violates its contract"
    RAN_DRAFT_WRONG = "ran_draft_wrong", "Ran, drafted contract wrong"


STATUS_EXPLANATIONS = {
    SampleStatus.RAN: (
        "The function ran to completion on synthesized inputs; no contract was checked."
    ),
    SampleStatus.RAN_HONOURS: (
        "The function ran and its outputs honoured the contract drafted for it "
        "(types, shapes and metamorphic relations)."
    ),
    SampleStatus.RAN_VIOLATES: (
        "The function ran but its outputs broke the drafted contract on at least one input."
    ),
    SampleStatus.RAN_DRAFT_WRONG: (
        "The function ran, but the drafted contract misdeclared its output, so the check "
        "says nothing about the code."
    ),
}


# Shown wherever statuses of more than one paper's report are listed together.
STATUS_CLAIM = (
    "Per-sample execution status on synthesized fixtures; not a correctness claim about any paper."
)


class ContractCheck(models.TextChoices):
    HONOURS = "HONOURS", "Honours"
    VIOLATES = "VIOLATES", "Violates"
    OUTPUT_MISDECLARED = "OUTPUT_MISDECLARED", "Output misdeclared"


class RepoKind(models.TextChoices):
    OFFICIAL = "official", "Official"
    NAMED_IN_PAPER = "named_in_paper", "Named in paper"
    LISTED = "listed", "Listed"
    FOUND_IN_TEXT = "found_in_text", "Found in text"
    COMMUNITY = "community", "Community"


# What each kind says about a repository's tie to the paper (the records'
# repo_kind_vocabulary, in the report's words).
REPO_KIND_EXPLANATIONS = {
    RepoKind.OFFICIAL: "The archive marks this repository official for the paper.",
    RepoKind.NAMED_IN_PAPER: (
        "The archive records that the paper mentions this repository; it is not marked official."
    ),
    RepoKind.LISTED: (
        "In the archive's code links for this paper, not marked official and not recorded as "
        "mentioned in the paper."
    ),
    RepoKind.FOUND_IN_TEXT: (
        "Syntology found this repository in the paper's own text; whether it is the authors' "
        "implementation is not asserted."
    ),
    RepoKind.COMMUNITY: (
        "Not in the archive's code links for this paper; a community repository Syntology "
        "harvested."
    ),
}


class ReachStatus(models.TextChoices):
    OK = "ok", "Reachable"
    GONE = "gone", "Gone"
    PRIVATE = "private", "Private"
    MOVED = "moved", "Moved"


def label_for(choices: type[models.TextChoices], value: str | None) -> str:
    """The human label of `value`, or the value itself when the vocabulary does not know it."""
    if value is None or value == "":
        return ""
    try:
        return choices(value).label
    except ValueError:
        return value.replace("_", " ").capitalize()


def is_known(choices: type[models.TextChoices], value: str | None) -> bool:
    return value in choices.values
