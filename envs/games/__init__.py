"""Pure rules cores, one module per game (no PettingZoo, no drawing state)."""
