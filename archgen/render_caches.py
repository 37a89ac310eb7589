"""matplotlib's and fontconfig's cache folders kept off the user's home where `ARCHGEN_CACHE=off` (`cache.enabled`).

`archgen.render` calls `render_caches_kept_private` before any renderer imports matplotlib. Apart from `archgen.cache`
(which keeps archgen's own cache directory) for its size: these are third-party caches, which archgen only points
elsewhere.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile

from archgen.cache import enabled


def render_caches_kept_private() -> None:
    """With the cache off, matplotlib's and fontconfig's cache folders are temporary ones, removed at exit.

    matplotlib writes its font list to ``~/.cache/matplotlib`` (and makes ``~/.config/matplotlib``) on its first
    import, unless `$MPLCONFIGDIR` names another folder (matplotlib's docs, "Environment variables"; matplotlib 3.11
    ``__init__.py`` `_get_config_or_cache_dir`, which falls back on a `tempfile.mkdtemp` folder removed at exit, as
    here). Building that list runs ``fc-list`` (``font_manager._get_fontconfig_fonts``), and fontconfig writes a
    cache file for each font folder whose cache is missing or stale (a user's ``~/.local/share/fonts``, fonts added
    without ``fc-cache``) to its first writable cache folder: ``$XDG_CACHE_HOME/fontconfig``, default
    ``~/.cache/fontconfig``, for a user who cannot write ``/var/cache/fontconfig`` (fonts-conf(5), ``<cachedir
    prefix="xdg">``; fontconfig 2.14 ``fonts.conf``). So `$XDG_CACHE_HOME` is pointed at a temporary folder too.
    PDF (the `typst` wheel, ``ignore_system_fonts``) reads no font folder and writes nothing (tests/test_cache_off).
    `ARCHGEN_CACHE=off` thus covers rendering: archgen's renderers import matplotlib only under `archgen.render`,
    which calls this first. A variable the caller set, or a matplotlib already imported (it has chosen its folder),
    is left alone. The font list is then built on each run (about a second). Run as root, fontconfig wrote to
    ``/var/cache/fontconfig``, the first folder of its ``<cachedir>`` list (Debian's ``/etc/fonts/fonts.conf``), which
    no variable moves. fontconfig stores caches in "the directory that can be accessed first in the list"
    (fonts-conf(5), ``<cachedir>``, fontconfig 2.14) and reads the caches of every folder listed, so
    `$FONTCONFIG_FILE` names a setup (`_fontconfig_first`) that lists a temporary folder first and then includes the
    one in force (the caller's `$FONTCONFIG_FILE`, else ``fonts.conf``): the system's caches are still read (as root,
    fc-list lists the same 39 fonts and leaves /var/cache/fontconfig as it was), and a folder they miss is cached in
    the temporary one.
    """
    if enabled():
        return
    if not (os.environ.get("MPLCONFIGDIR") or "matplotlib" in sys.modules):
        os.environ["MPLCONFIGDIR"] = _temporary("archgen-matplotlib-")
    if not os.environ.get("XDG_CACHE_HOME"):
        os.environ["XDG_CACHE_HOME"] = _temporary("archgen-xdg-cache-")
    config = os.environ.get("FONTCONFIG_FILE") or "fonts.conf"
    if os.path.basename(config) != _FONTS_CONF_NAME:  # a child process of one that set it keeps its parent's
        os.environ["FONTCONFIG_FILE"] = _fontconfig_first(config)


_FONTS_CONF_NAME = "archgen-fonts.conf"


def _fontconfig_first(config: str) -> str:
    """A fontconfig setup file, removed at exit: a temporary cache folder first, then `config` (fonts-conf(5))."""
    from xml.sax.saxutils import escape
    folder = _temporary("archgen-fontconfig-")
    path = os.path.join(folder, _FONTS_CONF_NAME)
    with open(path, "w", encoding="utf-8") as file:
        file.write('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
                   f'<fontconfig><cachedir>{escape(os.path.join(folder, "cache"))}</cachedir>'
                   f'<include ignore_missing="yes">{escape(config)}</include></fontconfig>\n')
    return path


def _temporary(prefix: str) -> str:
    """A new folder under `tempfile.gettempdir`, removed at exit."""
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder
