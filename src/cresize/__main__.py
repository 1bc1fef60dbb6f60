"""``python -m cresize`` / the ``cresize`` console script.

Without a subcommand: print the build configuration and self-check every mode.
Subcommands live in their own modules and are imported on demand.
"""
import importlib
import sys

SUBCOMMANDS = {
    # name: (module, one-line help)
    "selfcheck": ("cresize._selfcheck", "print the build configuration and check every mode"),
    "check": ("cresize._check", "run the gradient verification matrix"),
    "golden": ("cresize._golden", "write or verify golden test vectors"),
    "resize": ("cresize._cli_resize", "resize image files"),
    "demo": ("cresize._demo", "write a PNG comparing every mode on a built-in test pattern"),
}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("-h", "--help"):
        print("usage: cresize [SUBCOMMAND] [options]\n\nsubcommands:")
        for name, (_, text) in SUBCOMMANDS.items():
            print(f"  {name:10s} {text}")
        print("\nWithout a subcommand: selfcheck.")
        return 0
    if argv and argv[0] in ("-V", "--version"):
        from cresize import show_config
        show_config()
        return 0
    name = argv[0] if argv and not argv[0].startswith("-") else "selfcheck"
    if name not in SUBCOMMANDS:
        print(f"cresize: unknown subcommand {name!r}; choose from {', '.join(SUBCOMMANDS)}",
              file=sys.stderr)
        return 2
    rest = argv[1:] if argv and argv[0] == name else argv
    return importlib.import_module(SUBCOMMANDS[name][0]).main(rest)


if __name__ == "__main__":
    sys.exit(main())
