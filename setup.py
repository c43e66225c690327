"""Package list for setuptools (everything else is in pyproject.toml).

templates/ stays at the top of the repository (the layout is fixed) and ships inside the package as
`scaler.templates`, so a wheel renders without the source tree; setuptools cannot add a mapped
package to an automatic package search from pyproject.toml alone.
"""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["scaler", "scaler.*"]) + ["scaler.templates"],
    package_dir={"scaler.templates": "templates"},
)
