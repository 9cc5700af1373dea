"""alphazero."""
