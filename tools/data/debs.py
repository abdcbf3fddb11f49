"""Reading Debian packages without installing them: fields, files, and the licence.

A .deb is read through `dpkg-deb --fsys-tarfile`, so nothing is unpacked onto the disk and the
result does not depend on what is installed.
"""
import io
import re
import subprocess
import tarfile


def fields(path):
    """{'Package': ..., 'Version': ...} of one .deb."""
    out = subprocess.run(["dpkg-deb", "-f", str(path), "Package", "Version"],
                         check=True, capture_output=True, text=True).stdout
    return dict(line.split(": ", 1) for line in out.splitlines())


def files(path, wanted):
    """{member name: bytes} of the regular files in the .deb whose name `wanted(name)` accepts
    (symlinks are skipped: they duplicate a file that is read anyway)."""
    tar_bytes = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(path)],
                               check=True, capture_output=True).stdout
    out = {}
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
        for member in tar:
            if member.isfile() and wanted(member.name):
                out[member.name] = tar.extractfile(member).read()
    return out


def licence(copyright_text, part=None):
    """Licence of the package as a whole, from its copyright file: the `Files: *` paragraph of a
    DEP-5 file; else the licence names of its paragraphs; else, for a free-form file, the files of
    /usr/share/common-licenses that it refers to. With `part` (a regular expression such as
    r"help/"), a DEP-5 paragraph whose Files: line matches it is preferred."""
    if part:
        for paragraph in re.split(r"\n\s*\n", copyright_text):
            files_line = re.search(r"^Files:(.*)$", paragraph, re.M)
            found = re.search(r"^License:\s*(\S.*)$", paragraph, re.M)
            if files_line and found and re.search(part, files_line.group(1)):
                return f"{found.group(1).strip()} (Files:{files_line.group(1).rstrip()})"
    for paragraph in re.split(r"\n\s*\n", copyright_text):
        if re.search(r"^Files:\s*\*\s*$", paragraph, re.M):
            found = re.search(r"^License:\s*(\S.*)$", paragraph, re.M)
            if found:
                return found.group(1).strip()
    names = re.findall(r"^License:[ \t]*(\S+)[ \t]*$", copyright_text, re.M)
    if names and re.search(r"^Format:", copyright_text, re.M):
        return " and ".join(dict.fromkeys(names)) + " (DEP-5, no Files: * licence)"
    referred = [name.rstrip(".") for name in
                re.findall(r"/usr/share/common-licenses/([\w.+-]+)", copyright_text)]
    if referred:
        return "free-form file referring to " + ", ".join(dict.fromkeys(referred))
    return "free-form copyright file"


def package_copyright(path, part=None):
    """(package, version, licence, copyright file) of one .deb, the licence read from its copyright
    file (of the files matching `part`, if the file names them: see licence()); the file's bytes,
    b"" when it has none, for a caller that keeps it, so that the archive is read once."""
    info = fields(path)
    name = info["Package"]
    found = files(path, lambda member: member.endswith(f"/doc/{name}/copyright"))
    data = next(iter(found.values()), b"")
    return name, info["Version"], licence(data.decode("utf-8", "replace"), part), data
