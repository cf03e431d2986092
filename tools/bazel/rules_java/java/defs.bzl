"""Local stand-in for @rules_java//java:defs.bzl (Bazel 4, offline).

Bazel's own @bazel_tools BUILD files load these names from @rules_java; the
real rules_java only forwards them to the native rules, so this does the same.
"""

java_binary = native.java_binary
java_import = native.java_import
java_library = native.java_library
java_plugin = native.java_plugin
java_proto_library = native.java_proto_library
java_runtime = native.java_runtime
java_test = native.java_test
java_toolchain = native.java_toolchain
