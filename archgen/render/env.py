"""The jinja2 environment: shipped templates with one optional override directory, strict and escaped.

`StrictUndefined` makes a misspelt variable an error instead of an empty string; HTML templates (``*.html.j2``)
are autoescaped, so text from a spec shows literally; Markdown text goes through the `md` filter. Template errors
are raised as `TemplateError` with the template's file and line.

The environment is jinja's immutable sandbox: a template from `--templates DIR` (a pull request may change one)
reads the values it is given and nothing else: no attribute starting with an underscore (the way out to
``__globals__``, ``os`` and ``subprocess``), no method that changes a list or a mapping. An attempt is a
`TemplateError` at the template's line.
"""

from __future__ import annotations

import functools
import traceback
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import jinja2.sandbox
from markupsafe import Markup, escape

from archgen.errors import RenderError
from archgen.path_links import leaving_link, tree_words
from archgen.render import fmt
from archgen.spec_files import printable


class TemplateError(RenderError):
    """A template could not be loaded or rendered; the message names the template file and line."""


def shipped_templates() -> Path:
    """The templates shipped with archgen (``templates/``, inside the wheel as ``archgen/templates``)."""
    return Path(str(resources.files("archgen") / "templates"))


def _autoescape(name: str | None) -> bool:
    return name is not None and (name.endswith(".html.j2") or name.endswith(".html"))


def _contained(override: Path) -> Path:
    """`override`, once no file in it is a link that leaves it (an ``include`` or typst's ``read`` would follow it)."""
    found = leaving_link(override, folder=True)
    if found is not None:                         # the folder itself, or one above it, a link the checkout holds
        raise TemplateError(f"--templates {printable(str(override))}: {printable(str(found[0]))} is a link to "
                            f"{printable(found[1])}, outside {tree_words()}; archgen reads no template through a "
                            "link that leaves it")
    root = override.resolve()
    for entry in sorted(override.rglob("*")):
        if not entry.resolve().is_relative_to(root):
            raise TemplateError(f"{entry}: a symbolic link out of the template directory; archgen reads no file "
                                "outside it")
    return override


def environment(override: Path | None = None) -> jinja2.sandbox.ImmutableSandboxedEnvironment:
    """A sandboxed jinja2 environment that looks in `override` first, then in the shipped templates.

    Without `override`, one environment a process (`_shipped`), which compiles each template once, not once a
    document (22 ms a document: the md and HTML templates); it still reads a template again whose file changed.
    """
    return _environment(_contained(override)) if override else _shipped()


@functools.cache
def _shipped() -> jinja2.sandbox.ImmutableSandboxedEnvironment:
    return _environment(None, reload=True)


def _environment(override: Path | None, reload: bool = False) -> jinja2.sandbox.ImmutableSandboxedEnvironment:
    dirs = ([str(override)] if override else []) + [str(shipped_templates())]
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        loader=jinja2.FileSystemLoader(dirs), undefined=jinja2.StrictUndefined, autoescape=_autoescape,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, auto_reload=reload)
    env.filters.update(md=fmt.md, q=fmt.q, pct=fmt.pct, cell=fmt.cell, slug=fmt.slug, wbr=wbr,
                       labelled_svg=labelled_svg)
    return env


#: An HTML cell's word longer than this may break after its punctuation: shorter than the PDF's `fmt.LONG_WORD`, as
#: a browser lays a table out at its columns' longest words and cannot turn the page (the requirements matrix's
#: waived reasons, "rack/mi355x-compute's", clipped it by 5 px at 1,400 px; tests/render/test_browser.py). 12 since
#: the matrix's "Verified by" column (newuser84) clipped it by 5 to 19 px again at 20 ("memory_bandwidth").
HTML_LONG_WORD = 12


def wbr(text: Any) -> Markup:
    """Escaped HTML of `text` with a ``<wbr>`` after the punctuation of each long word (`fmt.breakable`).

    A URL or file path in a table cell wraps there, never in the middle of a word.
    """
    return Markup("<wbr>").join(escape(part) for part in fmt.breakable(str(text), HTML_LONG_WORD).split("\u200b"))


def labelled_svg(svg: Any, label_id: str, alt: str = "", alt_id: str = "") -> Markup:
    """An inline SVG as an image named by the element with id `label_id` (its figure's caption), described by `alt`.

    Without a role a screen reader walks into the diagram's paths and finds no text: WCAG 2.1 success criterion
    1.1.1 (non-text content) asks for a text alternative, and ``role="img"`` with ``aria-labelledby`` gives the SVG
    its caption as its name (W3C WCAG 2.1 technique ARIA10, https://www.w3.org/WAI/WCAG21/Techniques/aria/ARIA10).
    A caption names a figure but does not say what it shows: `alt` (`render.alt_text`), where given, goes into the
    SVG as its first child ``<desc id=alt_id>``, the element SVG 2 (section 5.9) makes its description, and
    ``aria-describedby`` points at it, so a screen reader reads the caption, then the description.
    """
    text = str(svg)
    start = text.find("<svg")
    if start < 0:
        return Markup(text)
    cut = start + len("<svg")
    attrs = Markup(' role="img" aria-labelledby="{}"').format(label_id)
    if not alt:
        return Markup(text[:cut]) + attrs + Markup(text[cut:])
    attrs += Markup(' aria-describedby="{}"').format(alt_id)
    end = text.find(">", cut) + 1
    return (Markup(text[:cut]) + attrs + Markup(text[cut:end]) + Markup('<desc id="{}">{}</desc>').format(alt_id, alt)
            + Markup(text[end:]))


def template_path(name: str, override: Path | None = None) -> Path:
    """Path of a non-jinja template (the Typst driver), honouring the override directory."""
    for base in ([_contained(override)] if override else []) + [shipped_templates()]:
        if (Path(base) / name).is_file():
            return Path(base) / name
    raise TemplateError(f"template '{name}' not found in {override or ''} {shipped_templates()}".strip())


def render_template(env: jinja2.Environment, name: str, **context: Any) -> str:
    """Render a template; errors become `TemplateError` with ``file:line``."""
    try:
        return env.get_template(name).render(**context)
    except jinja2.TemplateSyntaxError as err:
        raise TemplateError(f"{err.filename or name}:{err.lineno}: template syntax error: {err.message}") from None
    except jinja2.TemplateNotFound as err:
        raise TemplateError(f"template '{err.name}' not found") from None
    except (jinja2.UndefinedError, jinja2.sandbox.SecurityError) as err:
        raise TemplateError(f"{_where(err) or name}: template error: {err}") from None
    except RenderError:
        raise                                      # a filter's own error, with its own message
    except Exception as err:
        # the template's own code failed (`{{ 1/0 }}`, `{{ x|int * 'a' }}`, a macro that recurses without end) when
        # its innermost frame is a template or jinja's runtime; a TypeError, ValueError or AttributeError anywhere
        # below a template line is a value the template handed on; anything else is a bug in archgen's Python code
        where = _where(err)
        handed_on = isinstance(err, (TypeError, ValueError, AttributeError))
        if where is None or not (handed_on or _template_code(err)):
            raise
        raise TemplateError(f"{where}: template error: {type(err).__name__}: {err}") from None


def _where(err: BaseException) -> str | None:
    """File:line of the innermost template frame of a rendering error (jinja maps frames to template lines)."""
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if frame.filename.endswith(".j2"):
            return f"{frame.filename}:{frame.lineno}"
    return None


def _template_code(err: BaseException) -> bool:
    """Whether the innermost frame of `err` is a template's (``*.j2``) or jinja2's own code."""
    frames = traceback.extract_tb(err.__traceback__)
    inner = frames[-1].filename if frames else ""
    return inner.endswith(".j2") or Path(inner).resolve().is_relative_to(_JINJA)


#: jinja2's package directory: an error raised there while rendering is the template's.
_JINJA = Path(jinja2.__file__).resolve().parent
