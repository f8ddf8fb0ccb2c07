"""Model providers: embeddings and language models behind the ports.

- `LocalEmbeddingProvider` (the `local` extra): all-MiniLM-L6-v2 in process,
  no server or network; `ModelFiles` names its files;
- `MultilingualEmbeddingProvider` (the `multilingual` extra): multilingual-e5-small
  (4-bit) in process, for names and text in other languages;
  `EngineFiles` names its files;
- `OpenAICompatibleEmbeddingProvider`, `OpenAICompatibleLlmProvider` (the
  `openai` extra): any OpenAI-protocol server (OpenAI, vLLM, llama.cpp, Ollama);
- `FakeEmbeddingProvider`, `FakeLlmProvider` (answering from a script, or a
  `Refusal`): deterministic, no model, for tests and examples.

To bring your own, implement `redstring.ports.EmbeddingProvider` or `LlmProvider`.
"""

from __future__ import annotations

from redstring.llm.fake_embedding import FakeEmbeddingProvider
from redstring.llm.fake_llm import FakeLlmProvider, Refusal
from redstring.llm.local_embedding import LocalEmbeddingProvider, ModelFiles
from redstring.llm.multilingual_embedding import EngineFiles, MultilingualEmbeddingProvider
from redstring.llm.openai_compatible import (
    OpenAICompatibleEmbeddingProvider,
    OpenAICompatibleLlmProvider,
)

__all__ = [
    "EngineFiles",
    "FakeEmbeddingProvider",
    "FakeLlmProvider",
    "LocalEmbeddingProvider",
    "ModelFiles",
    "MultilingualEmbeddingProvider",
    "OpenAICompatibleEmbeddingProvider",
    "OpenAICompatibleLlmProvider",
    "Refusal",
]
