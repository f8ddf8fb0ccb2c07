"""`redstring.errors`: one tree, every deliberate error in it, drawn in its docstring."""

from __future__ import annotations

import re

import pytest

import redstring
import redstring.errors as errors
from redstring.domain import errors as domain_errors
from scripts import error_tree


def _subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    for sub in list(found):
        found |= _subclasses(sub)
    return found


def test_the_namespace_holds_every_library_error_and_nothing_else() -> None:
    library = {
        cls
        for cls in _subclasses(errors.RedstringError) | {errors.RedstringError}
        if cls.__module__.startswith("redstring.domain.errors")
    }
    exported = {getattr(errors, name) for name in errors.__all__}
    assert exported == library
    assert set(errors.__all__) == set(domain_errors.__all__)


def test_the_errors_page_draws_the_tree_the_classes_form() -> None:
    page = error_tree.PAGE.read_text()
    assert page == error_tree.drawn(page), "run `uv run python -m scripts.error_tree`"
    drawn = set(re.findall(r"\b([A-Z][A-Za-z]+Error)\b", error_tree.tree()))
    assert set(errors.__all__) <= drawn


def test_every_class_sits_under_one_of_the_families() -> None:
    families = {
        errors.InvalidArgumentError, errors.NotFoundError, errors.StoreError,
        errors.ModelError, errors.BuildError, errors.InvalidUseError, errors.MissingExtraError,
    }  # fmt: skip
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert cls is errors.RedstringError or issubclass(cls, tuple(families)), name


@pytest.mark.parametrize(
    "error",
    [
        errors.ModelServerStatusError(
            base_url="http://m/v1", model="m", status=500, server_message="x", attempts=3, hint=""
        ),
        errors.ModelServerTimeoutError(base_url="http://m/v1", model="m", timeout=1.0, attempts=2),
        errors.ModelServerUnreachableError(base_url="http://m/v1", model="m", detail="refused"),
        errors.ModelServerResponseError(base_url="http://m/v1", model="m", detail="no choices"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_one_except_model_server_error_catches_every_server_failure(
    error: errors.ModelServerError,
) -> None:
    with pytest.raises(errors.ModelServerError) as caught:
        raise error
    assert (caught.value.base_url, caught.value.model) == ("http://m/v1", "m")


def test_the_root_and_the_namespace_name_the_same_classes() -> None:
    for name in errors.__all__:
        if hasattr(redstring, name):
            assert getattr(redstring, name) is getattr(errors, name)
