/** @packageDocumentation What the OS reads when a process reads a page: a page-cache model and Linux, FreeBSD UFS, Windows and direct-I/O readahead models. */
export const PACKAGE_NAME = "@scanlab/readahead";
