// The source of the installed shared libraries librensa_<module>.so (cmake/RensaInstall.cmake):
// each holds its module's static archive whole and has no code of its own; a shared library
// needs one source file.
