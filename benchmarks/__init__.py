"""Speed benchmarks: run ``python -m benchmarks.envs`` and ``python -m benchmarks.search``."""
