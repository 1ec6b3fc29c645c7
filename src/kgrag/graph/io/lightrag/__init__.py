"""lightrag."""
