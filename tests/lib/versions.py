"""config/versions.sh, the one place for versions, as the tests read it."""
import os

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def versions_sh(name):
    """A variable of config/versions.sh."""
    with open(os.path.join(TOP, "config", "versions.sh")) as f:
        for line in f:
            if line.startswith(f"{name}="):
                return line.split("=", 1)[1].strip().strip('"')
    raise KeyError(f"{name} not in config/versions.sh")
