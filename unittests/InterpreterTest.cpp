//===- InterpreterTest.cpp - semantics of every op in the interpreter -----===//
