"""kubesim — a Kubernetes API server emulator for tests (Python 3 stdlib only)."""
