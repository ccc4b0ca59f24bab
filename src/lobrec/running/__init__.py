"""The running room: live recording and offline replay through one `Exchange` seam and one case
path (`runner.case_run`), the gateway, throttling, and the results assembled once for both."""
