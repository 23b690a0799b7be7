"""The machinery: command line, plans, the runner, training, the results store and reports."""
