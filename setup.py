"""Packaging glue that pyproject.toml cannot express: ship the top-level ``assets/``
folder inside the wheel as the package ``app.assets`` (see app/resources.py).

Everything else (name, version, dependencies, scripts) is in pyproject.toml.
"""
from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["sampler", "sampler.*", "app", "app.*"]) + ["app.assets"],
    package_dir={"app.assets": "assets"},
    package_data={"app.assets": ["*.md", "presets/*.json", "prompts/*.txt", "prompts/*.md", "prompts/*/*.txt",
                                 "icons/*.svg", "icons/*.png"]},
    include_package_data=False,
)
