"""The index over every suite: scoreboard, findings answered, the quality-against-cost table and its Pareto figure."""
