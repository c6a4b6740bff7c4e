# Its own module so that every part of the host can name the version without importing the package's
# __init__ (which would make an import circle); hatch reads the release version from here.
__version__ = "0.1.0"
