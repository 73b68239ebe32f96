/** The server's version, read from package.json: the MCP server and the web page's client both report it. */
export { version as VERSION } from "../package.json";
