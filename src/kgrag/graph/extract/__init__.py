"""extract."""
