"""The e2e fake gateway, reused by name (imported, not moved), for the running tests."""

from __future__ import annotations

from tests.e2e import conftest as e2e

_clean_proxy_environment = e2e._clean_proxy_environment
small_suite_path = e2e.small_suite_path
fake_gateway_process = e2e.fake_gateway_process
fake_gateway = e2e.fake_gateway
