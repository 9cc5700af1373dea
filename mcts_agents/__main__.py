"""``python -m mcts_agents``: the command line."""

from mcts_agents.cli import main

raise SystemExit(main())
