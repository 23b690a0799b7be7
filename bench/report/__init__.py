"""Reports from stored records: each suite's report built and laid out, the support matrix, the README's findings block."""
