# lit configuration of simtcc's pass tests (compiler/test/CMakeLists.txt
# runs each passes/*.ll through ctest with the parameters below).
import os

import lit.formats

config.name = "simtcc-passes"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll"]
config.test_source_root = os.path.dirname(__file__)

params = {name: lit_config.params.get(name) for name in ("simt_passes", "llvm_tools", "exec_root")}
missing = [name for name, value in params.items() if not value]
if missing:
    lit_config.fatal(
        "missing --param " + ", ".join(missing) + ": run these tests with "
        "ctest -R compiler.passes (the build passes the plugin and LLVM's tools)"
    )
config.test_exec_root = params["exec_root"]
# opt, FileCheck and not of LLVM 16 before any other on PATH.
config.environment["PATH"] = os.pathsep.join([params["llvm_tools"], os.environ.get("PATH", "")])
config.substitutions.append(("%simt_passes", params["simt_passes"]))
