"""The real paperswithcode-client in this environment: it was written for pydantic 1, and
the MCP SDK needs pydantic 2. The client's result requests pass pydantic 1's
`skip_defaults` to `BaseModel.dict()`, which pydantic 2 no longer takes; a user installs
the client with its own pydantic 1. Here that one keyword is read as pydantic 2 spells it
(`exclude_unset`), so the tests drive the client's own code otherwise unchanged."""

import pydantic
import pytest

_dict = pydantic.BaseModel.dict


def _dict_taking_skip_defaults(self, *args, skip_defaults=None, **kwargs):
    if skip_defaults:
        kwargs["exclude_unset"] = True
    return _dict(self, *args, **kwargs)


@pytest.fixture(autouse=True)
def client_on_pydantic_2(monkeypatch):
    monkeypatch.setattr(pydantic.BaseModel, "dict", _dict_taking_skip_defaults)
