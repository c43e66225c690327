import subprocess
import sys

import pytest

from scaler import __version__
from scaler.cli import COMMANDS, build_parser, main


def test_version_flag_prints_package_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exit_:
        assert exit_.code == 0
    assert __version__ in capsys.readouterr().out


def test_no_subcommand_is_a_usage_error():
    assert main([]) == 2


def test_every_registered_command_has_help(capsys):
    parser = build_parser()
    names = set(parser._subparsers._group_actions[0].choices)
    assert len(names) >= len(COMMANDS)
    for name in sorted(names):
        with pytest.raises(SystemExit) as exit_:
            main([name, "--help"])
        assert exit_.value.code == 0
        assert f"slo-scaler {name}" in capsys.readouterr().out


def test_python_dash_m_runs_the_same_cli():
    proc = subprocess.run([sys.executable, "-m", "scaler", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "emulate" in proc.stdout


def test_a_tools_command_without_the_tools_extra_names_the_extra():
    code = "import sys; sys.modules['rich'] = None; from scaler.cli import main; sys.exit(main(['bench', '--help']))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "pip install 'slo-scaler[tools]'" in proc.stderr and "rich" in proc.stderr


def test_the_command_table_names_what_each_module_registers():
    parser = build_parser()
    assert set(parser._subparsers._group_actions[0].choices) == set(COMMANDS)
