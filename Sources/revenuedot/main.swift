import Foundation
import Tools

exit(RevenueDotCLI.run(Array(CommandLine.arguments.dropFirst())))
