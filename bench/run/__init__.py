"""A run: its plan, the runner that executes and stores each job, executors, worker processes, outcomes, re-timing."""
