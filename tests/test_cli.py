import subprocess
import sys

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


def test_every_registered_command_has_help():
    parser = build_parser()
    names = set(parser._subparsers._group_actions[0].choices)
    assert len(names) == len(COMMANDS)
    for name in names:
        proc = subprocess.run([sys.executable, "-m", "scaler", name, "--help"], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert name in proc.stdout
