"""Bots: players that answer the same prompt a human gets (their seat view + legal actions)."""
