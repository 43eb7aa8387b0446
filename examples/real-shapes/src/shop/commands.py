from __future__ import annotations


def option(name: str, short: str | None = None, description: str = "") -> tuple[str, str | None, str]:
    return name, short, description


class VersionCommand:
    options = [
        option("short", "s", "Print the version number only"),
        option("dry-run", None, "Change nothing, show what would change"),
        option("next-phase", None, "Bump to the next pre-release phase"),
    ]


class ConfigCommand:
    @property
    def unique_config_values(self) -> dict[str, tuple[str, str]]:
        unique_config_values = {
            "cache-dir": ("path", "where downloads are kept"),
            "installer.parallel": ("bool", "install in parallel"),
            "installer.max-workers": ("int", "how many workers install at once"),
        }
        return unique_config_values
