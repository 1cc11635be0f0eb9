"""The project's Python tools under tools/ (scripts without a .py suffix), loaded as modules so
that their tests call their functions: one loader for every tool's test file."""

import importlib.machinery
import importlib.util
from pathlib import Path
from types import ModuleType

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def load_tool(path: str) -> ModuleType:
    """tools/`path` (e.g. "suites/run-cubed-suite") as a module (its main() not run: the
    scripts guard it)."""
    module_name = Path(path).name.removesuffix(".py").replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(module_name, str(TOOLS / path))
    spec = importlib.util.spec_from_loader(module_name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
