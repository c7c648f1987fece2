"""siw.sh's package_version: which linux-kbuild / linux-source to download for a
cached kernel when a security upload has replaced the kernel's own revision."""
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIW = os.path.join(ROOT, "scripts", "softroce-vm.d", "siw.sh")

# what `apt-cache madison linux-kbuild-6.1` printed on 2026-11-28: 6.1.192-2 gone
MADISON = """\
linux-kbuild-6.1 | 6.1.192-3 | http://example.invalid/debian-security bookworm-security/main amd64 Packages
linux-kbuild-6.1 | 6.1.192-10 | http://example.invalid/debian-security bookworm-security/main amd64 Packages
linux-kbuild-6.1 | 6.1.176-1 | http://example.invalid/debian bookworm/main amd64 Packages
linux-kbuild-6.1 | 6.1.19-1 | http://example.invalid/debian bookworm/main amd64 Packages
"""


class PackageVersion(unittest.TestCase):
    def version(self, want, madison=MADISON):
        with tempfile.TemporaryDirectory() as tmp:
            stub = os.path.join(tmp, "apt-cache")
            with open(stub, "w") as f:
                f.write("#!/bin/sh\ncat <<'END'\n" + madison + "END\n")
            os.chmod(stub, 0o755)
            env = dict(os.environ, PATH=tmp + ":" + os.environ["PATH"])
            out = subprocess.run(["bash", "-c", 'source "$0"; package_version linux-kbuild-6.1 "$1"',
                                  SIW, want], env=env, capture_output=True, text=True, check=True)
            return out.stdout.strip()

    def test_the_exact_version_when_the_archive_has_it(self):
        self.assertEqual(self.version("6.1.176-1"), "6.1.176-1")

    def test_the_newest_revision_of_the_same_release_when_it_is_gone(self):
        self.assertEqual(self.version("6.1.192-2"), "6.1.192-10")

    def test_no_other_release_stands_in(self):
        self.assertEqual(self.version("6.1.190-1"), "")
        # 6.1.19 is not a revision of 6.1.192, nor 6.1.192 of 6.1.19
        self.assertEqual(self.version("6.1.19-2"), "6.1.19-1")

    def test_nothing_known(self):
        self.assertEqual(self.version("6.1.192-2", madison=""), "")


if __name__ == "__main__":
    unittest.main()
