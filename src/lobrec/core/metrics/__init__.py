"""The metrics room: the results file's Structs, rates, one shape for one or K runs, the verdict of
a case over its runs, the paired comparisons and tiers, routing, the gates, results over time."""
