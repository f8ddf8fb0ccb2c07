"""Graph-store adapters."""
