"""The package list, found rather than written out (everything else is in pyproject.toml).

setuptools' own discovery searches folders for packages; ``agents/`` and ``scripts/`` are installed as
``war_env.agents`` and ``war_env.scripts`` (``package-dir`` in pyproject.toml), which it cannot see from
their folder names, so they are added here, each with the subfolders it has.
"""

from setuptools import find_namespace_packages, setup

MAPPED = {"war_env.agents": "agents", "war_env.scripts": "scripts"}
EXCLUDE = ["*__pycache__*"]

packages = find_namespace_packages(include=["war_env", "war_env.*"], exclude=EXCLUDE)
for package, folder in MAPPED.items():
    packages += [package] + [f"{package}.{sub}" for sub in find_namespace_packages(where=folder, exclude=EXCLUDE)]

setup(packages=packages)
