"""Which model's flags an error of `build` names: the one whose model failed."""

from __future__ import annotations

from redstring.cli.wording import EMBEDDING_FLAGS, LLM_FLAGS, flags_for
from redstring.domain.errors import ModelServerError


def _failed(model: str) -> ModelServerError:
    return ModelServerError("the server failed", base_url="http://127.0.0.1:9/v1", model=model)


def test_a_build_error_of_the_embedding_model_names_the_embedding_flags() -> None:
    assert flags_for("build", _failed("embed-model"), llm_model="chat-model") is EMBEDDING_FLAGS


def test_a_build_error_of_the_language_model_or_of_no_model_names_the_llm_flags() -> None:
    assert flags_for("build", _failed("chat-model"), llm_model="chat-model") is LLM_FLAGS
    assert flags_for("build", ValueError("no model"), llm_model="chat-model") is LLM_FLAGS


def test_other_commands_name_the_embedding_flags_whatever_failed() -> None:
    assert flags_for("search", _failed("chat-model"), llm_model="chat-model") is EMBEDDING_FLAGS
