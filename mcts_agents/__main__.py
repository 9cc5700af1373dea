"""``python -m mcts_agents``: the command line."""

from mcts_agents.launch import run

raise SystemExit(run())
