// Entry of ui://bmad/document.html (bmad-doc).
import { ViewApp } from "./app.js";
import { showDocument } from "./document.js";

const app = new ViewApp("bmad-document");
const root = document.getElementById("app")!;
app.onResult = (result) => showDocument(app, root, result);
void app.connect();
