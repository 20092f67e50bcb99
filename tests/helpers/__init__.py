'''The test suite's helpers, one module per thing a test needs made or
started: fleet runs and reports shaped as ReFrame stores them, the
Hypothesis strategies and profiles of the property tests, sysfs trees and
topology replays, this host's facts, the real tools the end-to-end tests
start (Slurm clusters, Spack, VictoriaMetrics, cron, systemd) and the
machine-wide lock they share. Tests import them as
``from helpers import fleet_cases`` (pyproject.toml puts tests/ on the
path); the fixtures stay in tests/conftest.py.'''
