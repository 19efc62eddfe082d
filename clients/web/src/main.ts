import { tableClient } from "./client";
const client = tableClient();
client.listTables({ pageSize: 10 }).then((r) => console.log(r.tables.length));
