"""Vector-store adapters."""
