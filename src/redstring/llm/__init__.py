"""Model providers: embedding models and language models."""
