"""Betting systems as vectorised policies (see issue 4)."""
