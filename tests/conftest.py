"""Settings every test shares.

Hypothesis's per-example deadline is a timed assertion: on a loaded 2-core machine a fast property
can miss 200 ms and fail for reasons that are not lobrec's. Speed is measured in bench/, so no
property test has a deadline.
"""

from hypothesis import settings

settings.register_profile("lobrec", deadline=None)
settings.load_profile("lobrec")
